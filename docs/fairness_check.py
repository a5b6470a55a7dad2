#!/usr/bin/env python3
"""Check Parlour's shuffles yourself: standalone, Python 3.8+, standard library only.

    python fairness_check.py RECORDS.json
        Check the shuffle of every record in the file (a JSON object, a JSON
        array of records, or one record per line): the revealed seed must hash
        to the commitment shown during the game, and must derive the very deck
        the record says was dealt.  One line per record, exit code 1 if any fails.

    python fairness_check.py RECORD.json --commitment HEX [--client-seed TEXT]
        Check one record against what YOU saw: the commitment you saved before
        the deal must be the record's (a record carrying another seed with its
        own commitment fails), and, with --client-seed, your seed must be among
        the seeds the deck was mixed with.

    python fairness_check.py RECORDS.json --round ROUND.json [--game-number K]
                             [--commitment HEX] [--client-seed TEXT]
        Duplicate deals: check records dealt from a duplicate round's seed.
        ROUND.json is the finished round as GET /api/v1/tournaments/{id}/rounds/{n}
        answers it (its commitment, its revealed seed and the client seeds of every
        player of the round); the records are games K, K+1, ... of one table's
        series (K is 1 unless given: the game_number of GET /api/v1/games/{id}).
        --commitment is the round's commitment you saved before it began.

    python fairness_check.py --seed HEX [--game old_maid]
        Print the commitment of a seed and the deck it derives (52 cards, or 51
        for Old Maid).

The algorithm (hmac-sha256-ctr-fisher-yates/1), also in docs/fairness.md:
the cards in canonical order (suits S H D C, ranks 2..A); a byte stream whose
block i is HMAC-SHA256(key=seed, msg=b"parlour-deck/1" + i as 8 bytes
big-endian); an index below n from the next 4 bytes read big-endian, rejected
and redrawn when >= 2**32 - 2**32 % n, else taken mod n; Fisher-Yates from the
last position down to 1, swapping position i with an index drawn below i + 1.
With the players' client seeds (algorithm .../1+client-seeds/1) the seed above
is first replaced by HMAC-SHA256(key=seed, msg=b"parlour-mix/1" + JSON), JSON
being {"clients": [the seats' client seeds], "nonce": the game's number} with
sorted keys and no spaces.  A duplicate round's game K at a table of S seats is dealt
from HMAC-SHA256(key=round seed, msg=f"{S}:{K-1}"), then mixed the same way with the
client seeds of every player of the round and the nonce K.
"""

import argparse
import hashlib
import hmac
import json
import sys

SUITS = "SHDC"
RANKS = "23456789TJQKA"


def canonical_deck(game):
    cards = [r + s for s in SUITS for r in RANKS]
    return [c for c in cards if c != "QC"] if game == "old_maid" else cards


def canonical_order(cards):
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


def byte_stream(seed):
    counter = 0
    while True:
        message = b"parlour-deck/1" + counter.to_bytes(8, "big")
        yield from hmac.new(seed, message, hashlib.sha256).digest()
        counter += 1


def index_below(stream, n):
    limit = 2**32 - (2**32 % n)
    while True:
        x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
        if x < limit:
            return x % n


def derive_deck(seed, cards):
    deck = list(cards)
    stream = byte_stream(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = index_below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def mix_seed(seed, client_seeds, nonce):
    message = json.dumps(
        {"clients": list(client_seeds), "nonce": nonce}, separators=(",", ":"), sort_keys=True
    ).encode("ascii")
    return hmac.new(seed, b"parlour-mix/1" + message, hashlib.sha256).digest()


def check(record, saved_commitment=None, client_seed=None):
    """None if the record's shuffle checks out, else what is wrong."""
    shuffle = record.get("shuffle") or {}
    if not shuffle.get("commitment"):
        return "no shuffle commitment (a game dealt from a given deck)"
    if saved_commitment is not None and shuffle["commitment"].lower() != saved_commitment.lower():
        return "the record's commitment is not the one you saved before the deal"
    client_seeds = shuffle.get("client_seeds")
    if client_seed is not None and client_seed not in (client_seeds or []):
        return "your client seed is not among the seeds this deck was mixed with"
    if not shuffle.get("seed"):
        return "the seed is not revealed yet (the game is still running)"
    try:
        seed = bytes.fromhex(shuffle["seed"])
    except ValueError:
        return "the seed is not hexadecimal"
    if hashlib.sha256(seed).hexdigest() != shuffle["commitment"].lower():
        return "sha256(seed) is not the commitment"
    deck = record.get("deck") or []
    if client_seeds is not None:
        seed = mix_seed(seed, client_seeds, shuffle.get("nonce", 0))
    if derive_deck(seed, canonical_order(deck)) != deck:
        return "the seed does not derive this deck"
    return None


def duplicate_seed(round_seed, seats, number):
    """The deck seed of game ``number`` (1 first) at every ``seats``-seat table of a round."""
    message = f"{seats}:{number - 1}".encode("ascii")
    return hmac.new(round_seed, message, hashlib.sha256).digest()


def check_duplicate(record, round_, number, saved_commitment=None, client_seed=None):
    """None if ``record`` is game ``number`` dealt from the duplicate round ``round_``."""
    if (record.get("shuffle") or {}).get("commitment"):
        return (
            "this record has a shuffle of its own (not a duplicate deal): check it without --round"
        )
    committed = str(round_.get("commitment") or "").lower()
    if not committed:
        return "the round has no commitment (not a round of duplicate deals)"
    if saved_commitment is not None and committed != saved_commitment.lower():
        return "the round's commitment is not the one you saved before it began"
    client_seeds = round_.get("client_seeds")
    if client_seed is not None and client_seed not in (client_seeds or []):
        return "your client seed is not among the round's contributions"
    if not round_.get("seed"):
        return "the round's seed is not revealed yet (the round is still being played)"
    try:
        seed = bytes.fromhex(round_["seed"])
    except ValueError:
        return "the round's seed is not hexadecimal"
    if hashlib.sha256(seed).hexdigest() != committed:
        return "sha256(the round's seed) is not the round's commitment"
    deck = record.get("deck") or []
    seed = duplicate_seed(seed, int(record.get("seats") or 0), number)
    if client_seeds is not None:
        seed = mix_seed(seed, client_seeds, number)
    if derive_deck(seed, canonical_order(deck)) != deck:
        return f"the round's seed does not derive this deck as game {number} of its table"
    return None


def read_records(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    try:
        data = json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return data if isinstance(data, list) else [data]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", help="records to check")
    parser.add_argument("--seed", help="a seed (hex): print its commitment and deck")
    parser.add_argument("--game", default="", help="with --seed: the game (old_maid: 51 cards)")
    parser.add_argument("--commitment", help="the commitment you saved before the deal")
    parser.add_argument("--client-seed", help="your client seed: it must be in the mix")
    parser.add_argument("--round", help="duplicate deals: the round (JSON) the records are of")
    parser.add_argument(
        "--game-number", type=int, default=1, help="with --round: the first record's game number"
    )
    args = parser.parse_args()
    if args.seed:
        seed = bytes.fromhex(args.seed)
        print("commitment", hashlib.sha256(seed).hexdigest())
        print("deck", " ".join(derive_deck(seed, canonical_deck(args.game))))
        return 0
    if not args.file:
        parser.error("give a records file or --seed")
    failed = 0
    records = read_records(args.file)
    round_ = None
    if args.round:
        with open(args.round, encoding="utf-8") as handle:
            round_ = json.load(handle)
    for number, record in enumerate(records, 1):
        if round_ is not None:
            game_number = args.game_number + number - 1
            problem = check_duplicate(
                record, round_, game_number, args.commitment, args.client_seed
            )
            shown = f"game {game_number} of round {round_.get('number')}, round commitment"
            shown += f" {str(round_.get('commitment'))[:12]}"
        else:
            problem = check(record, args.commitment, args.client_seed)
            shown = f"commitment {str((record.get('shuffle') or {}).get('commitment'))[:12]}"
        if problem is None:
            print(f"record {number}: OK ({record.get('game')}, {shown}...)")
        else:
            failed += 1
            print(f"record {number}: FAILED: {problem}")
    print(f"{len(records) - failed} passed, {failed} failed")
    if args.commitment is None and not failed:
        print(
            "checked against each record's own commitment: give --commitment HEX, the one"
            " you saved before the deal (the round's, with --round), to know the seed was"
            " not swapped since"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
