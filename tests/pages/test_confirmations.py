"""Every destructive action asks first (issue 20): its button opens a question (a plain GET
page, no JavaScript needed) that changes nothing; only the question's own form acts."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.utils.html import escape

from tests import factories
from tests.factories import PageWorld
from tournaments import services
from tournaments.models import Player, Registration, Round, Table, TableSeat, Tournament

pytestmark = pytest.mark.django_db


def _night(world: PageWorld, game: str = "give_away", **settings: object) -> Tournament:
    tournament = services.create_tournament(
        world.club, "Club Night", game, 2, table_min=2, table_max=3, **settings
    )
    for player in [world.player, *world.bots[:3]]:
        services.register(tournament, player)
    return tournament


def _asks(client: object, url: str, words: str) -> str:
    """The question page at ``url``: it names what will happen and posts to itself."""
    answer = client.get(url)  # type: ignore[attr-defined]
    assert answer.status_code == 200, url
    page: str = answer.content.decode()
    assert escape(words) in page and 'id="confirm-form"' in page and "Cancel" in page
    assert 'action="' not in page.split('id="confirm-form"')[1].split(">")[0]
    return page


def test_the_desk_offers_no_destructive_action_without_its_question(world: PageWorld) -> None:
    tournament = _night(world)
    services.start_round(tournament, auto_check_in=True)
    page = world.client(world.organiser).get(f"/tournaments/{tournament.pk}/manage").content
    posted = set(re.findall(rb'method="post" action="/tournaments/\d+/manage/([\w-]+)"', page))
    assert posted <= {
        b"register",
        b"add-player",
        b"check-in",
        b"check-in-all",
        b"start-round",
        b"swap",
        b"begin-round",
        b"seat-late",
    }, posted
    # Before round 1 begins a player is withdrawn, not dropped (Corrections' Withdraw…).
    assert f"/tournaments/{tournament.pk}/confirm/drop?player=".encode() not in page
    assert f'action="/tournaments/{tournament.pk}/confirm/withdraw"'.encode() in page
    assert f'action="/tournaments/{tournament.pk}/confirm/reseat"'.encode() in page
    for gone in ("drop", "reseat", "take-back"):
        answer = world.client(world.organiser).post(
            f"/tournaments/{tournament.pk}/manage/{gone}", {"player": world.player.pk}
        )
        assert answer.status_code == 404, gone


def test_drop_asks_first_and_the_question_changes_nothing(world: PageWorld) -> None:
    tournament = services.create_tournament(
        world.club, "Club Night", "give_away", 2, table_min=2, table_max=3
    )
    for bot in world.bots[:4]:
        services.register(tournament, bot)
    org = world.client(world.organiser)
    url = f"/tournaments/{tournament.pk}/confirm/drop?player={world.bots[0].pk}"
    # Before a round has begun: withdrawn, not dropped (a line "dropped after round 0"
    # would stay in the standings: found by trying), and said so instead of asked.
    refused = org.get(url, follow=True).content.decode()
    assert "withdraw Bot 0 instead" in refused and 'id="confirm-form"' not in refused
    factories.play_round(tournament, auto_check_in=True)
    page = org.get(f"/tournaments/{tournament.pk}/manage").content.decode()
    assert f"/tournaments/{tournament.pk}/confirm/drop?player=" in page
    _asks(org, url, "Drop Bot 0 from Club Night? They keep their results so far")
    # It could be taken back until round 2 begins, and says so (it said "cannot be undone").
    _asks(org, url, "Until round 2 begins you can still bring them back into the tournament.")
    assert Registration.objects.get(player=world.bots[0]).dropped_after is None
    done = org.post(url.split("?")[0], {"player": world.bots[0].pk}, follow=True)
    assert "Bot 0 has dropped out of Club Night." in done.content.decode()
    assert Registration.objects.get(player=world.bots[0]).dropped_after == 1


@pytest.mark.parametrize(
    "language,asked,done,refused",
    [
        (
            "en",
            "Bring Bot 0 back into Club Night? Their drop after round 1 is taken back",
            "Bot 0 is back in Club Night.",
            "round 2 has begun since Bot 0 dropped out (after round 1), so their drop stands",
        ),
        (
            "ru",
            "Вернуть игрока Bot 0 в турнир «Club Night»? Выбывание после тура 1 отменяется",
            "Bot 0 снова в турнире «Club Night».",
            "после выбывания игрока Bot 0 (после тура 1) уже начался тур 2, поэтому выбывание"
            " остаётся в силе",
        ),
    ],
)
def test_bringing_a_dropped_player_back_asks_first_and_is_refused_once_play_went_on(
    world: PageWorld, language: str, asked: str, done: str, refused: str
) -> None:
    """A drop by a mis-click at the desk is taken back: the desk offers it beside the
    dropped player, asks first, and once the next round has begun says the drop stands."""
    tournament = services.create_tournament(
        world.club, "Club Night", "give_away", 3, table_min=2, table_max=3
    )
    for bot in world.bots[:4]:
        services.register(tournament, bot)
    org = world.client(world.organiser)
    factories.play_round(tournament, auto_check_in=True)
    gone = world.bots[0]
    services.drop(tournament, gone)
    desk = f"/tournaments/{tournament.pk}/manage"
    url = f"/tournaments/{tournament.pk}/confirm/bring-back?player={gone.pk}"
    assert url in org.get(desk).content.decode()
    page = org.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    assert escape(asked) in page.content.decode() and 'id="confirm-form"' in page.content.decode()
    assert Registration.objects.get(player=gone).dropped_after == 1  # asking changes nothing
    answer = org.post(
        url.split("?")[0], {"player": gone.pk}, follow=True, HTTP_ACCEPT_LANGUAGE=language
    )
    assert [str(m) for m in answer.context["messages"]] == [done]
    assert Registration.objects.get(player=gone).dropped_after is None
    assert url not in answer.content.decode()  # the desk offers it no more
    # Dropped again, and round 2 has begun without them: the drop stands, said in words,
    # on the question and on a confirmation posted anyway, and nothing changes.
    services.drop(tournament, gone)
    factories.begin_round(tournament)
    assert url not in org.get(desk).content.decode()
    for answer in (
        org.get(url, follow=True, HTTP_ACCEPT_LANGUAGE=language),
        org.post(
            url.split("?")[0], {"player": gone.pk}, follow=True, HTTP_ACCEPT_LANGUAGE=language
        ),
    ):
        assert 'id="confirm-form"' not in answer.content.decode()
        assert [str(m) for m in answer.context["messages"]] == [refused]
    assert Registration.objects.get(player=gone).dropped_after == 1


def test_bringing_back_into_a_seated_round_says_it_is_seated_again_with_them(
    world: PageWorld,
) -> None:
    tournament = services.create_tournament(
        world.club, "Club Night", "give_away", 3, table_min=2, table_max=3
    )
    for bot in world.bots[:5]:
        services.register(tournament, bot)
    factories.play_round(tournament, auto_check_in=True)
    second = services.start_round(tournament, auto_check_in=True)
    gone = world.bots[0]
    services.drop(tournament, gone)
    org = world.client(world.organiser)
    url = f"/tournaments/{tournament.pk}/confirm/bring-back?player={gone.pk}"
    _asks(org, url, "Round 2 is seated already: it is seated again with them")
    assert not TableSeat.objects.filter(table__round=second, player=gone).exists()
    answer = org.post(url.split("?")[0], {"player": gone.pk}, follow=True)
    said = [str(m) for m in answer.context["messages"]]
    assert said == ["Bot 0 is back in Club Night. Round 2 is seated again with them."]
    second.refresh_from_db()
    assert (
        TableSeat.objects.filter(table__round=second, player=gone).exists()
        or gone.pk in second.byes
    )


def test_only_organisers_bring_a_dropped_player_back(world: PageWorld) -> None:
    tournament = services.create_tournament(
        world.club, "Club Night", "give_away", 3, table_min=2, table_max=3
    )
    for bot in world.bots[:4]:
        services.register(tournament, bot)
    factories.play_round(tournament, auto_check_in=True)
    services.drop(tournament, world.bots[0])
    url = f"/tournaments/{tournament.pk}/confirm/bring-back"
    answer = world.client(world.person).post(url, {"player": world.bots[0].pk})
    assert answer.status_code == 403
    assert Registration.objects.get(player=world.bots[0]).dropped_after == 1


def test_seat_again_asks_first_naming_the_wishes_and_keeps_the_seating_until_confirmed(
    world: PageWorld,
) -> None:
    tournament = _night(world)
    round_ = services.start_round(tournament, auto_check_in=True)
    before = sorted(TableSeat.objects.filter(table__round=round_).values_list("player", "table"))
    org = world.client(world.organiser)
    wishes = f"apart_a={world.bots[0].pk}&apart_b={world.bots[1].pk}&fixed_player=&fixed_table="
    page = _asks(
        org,
        f"/tournaments/{tournament.pk}/confirm/reseat?{wishes}",
        "Seat round 1 again? Every table is drawn anew (Bot 0 and Bot 1 kept apart)",
    )
    assert f'name="apart_a" value="{world.bots[0].pk}"' in page
    after = sorted(TableSeat.objects.filter(table__round=round_).values_list("player", "table"))
    assert after == before
    bad = org.get(
        f"/tournaments/{tournament.pk}/confirm/reseat?apart_a={world.bots[0].pk}", follow=True
    ).content.decode()
    assert "Choose both players to keep apart." in bad
    done = org.post(
        f"/tournaments/{tournament.pk}/confirm/reseat",
        {"apart_a": world.bots[0].pk, "apart_b": world.bots[1].pk},
        follow=True,
    )
    assert "Round 1 is seated again." in done.content.decode()


def test_giving_a_seat_back_asks_first(world: PageWorld) -> None:
    tournament = _night(world, turn_seconds=30, timeouts_to_bot=1)
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    row = TableSeat.objects.get(table__round__tournament=tournament, player=world.player)
    row.autoplay, row.timeouts_in_a_row = True, 1
    row.save()
    org = world.client(world.organiser)
    desk = org.get(f"/tournaments/{tournament.pk}/manage").content.decode()
    url = f"/tournaments/{tournament.pk}/confirm/take-back?table_seat={row.pk}"
    assert url in desk
    _asks(org, url, f"Give Ann's seat at table {row.table.number} back? The bot stops playing")
    row.refresh_from_db()
    assert row.autoplay
    done = org.post(url.split("?")[0], {"table_seat": row.pk}, follow=True)
    assert escape("Ann's seat is theirs again.") in done.content.decode()
    row.refresh_from_db()
    assert not row.autoplay
    again = org.get(url, follow=True).content.decode()  # nothing left to give back
    assert escape("Ann plays their own seat: no bot has it") in again
    row.autoplay = True
    row.save()
    Table.objects.filter(pk=row.table_id).update(status=Table.Status.FINISHED)
    over = org.post(url.split("?")[0], {"table_seat": row.pk}, follow=True).content.decode()
    assert "has finished: there is no seat to give back" in over
    row.refresh_from_db()
    assert row.autoplay


def test_a_players_own_withdrawal_asks_first(world: PageWorld) -> None:
    tournament = _night(world)
    ann = world.client(world.person)
    url = f"/tournaments/{tournament.pk}/me/withdraw"
    assert f'href="{url}"' in ann.get(f"/tournaments/{tournament.pk}/").content.decode()
    _asks(ann, url, "Withdraw from Club Night? Your registration is deleted")
    assert Registration.objects.filter(tournament=tournament, player=world.player).exists()
    assert ann.get(f"/tournaments/{tournament.pk}/me/register").status_code == 405
    ann.post(url)
    assert not Registration.objects.filter(tournament=tournament, player=world.player).exists()
    gone = ann.get(url, follow=True).content.decode()  # nothing left to ask about
    assert "You are not registered in Club Night." in gone and 'id="confirm-form"' not in gone


def test_renewing_or_turning_off_the_sign_up_link_asks_first(world: PageWorld) -> None:
    org = world.client(world.organiser)
    base = f"/clubs/{world.club.slug}/sign-up-link"
    org.post(f"{base}/renew")  # making the first link destroys nothing: no question
    world.club.refresh_from_db()
    token = world.club.signup_token
    assert token
    people = org.get(f"/clubs/{world.club.slug}/people").content.decode()
    assert f'href="{base}/renew"' in people and f'href="{base}/off"' in people
    _asks(org, f"{base}/renew", "The link handed out so far stops working")
    _asks(org, f"{base}/off", "Nobody can join through it any more.")
    world.club.refresh_from_db()
    assert world.club.signup_token == token
    org.post(f"{base}/off")
    world.club.refresh_from_db()
    assert world.club.signup_token == ""


def test_removing_an_organiser_asks_first_and_keeps_one_organiser(world: PageWorld) -> None:
    org = world.client(world.organiser)
    services.add_organiser(world.club, world.person)
    url = f"/clubs/{world.club.slug}/people/organisers/remove"
    people = org.get(f"/clubs/{world.club.slug}/people").content.decode()
    assert f"{url}?user={world.person.pk}" in people
    _asks(org, f"{url}?user={world.person.pk}", "Remove ann from the organisers of Test Club?")
    assert world.club.organisers.filter(pk=world.person.pk).exists()
    done = org.post(url, {"user": world.person.pk}, follow=True).content.decode()
    assert "ann no longer organises Test Club." in done
    assert not world.club.organisers.filter(pk=world.person.pk).exists()
    last = org.post(url, {"user": world.organiser.pk}, follow=True).content.decode()
    assert "olga is the only organiser of Test Club: add another first" in last
    # Nor is the last organiser's removal asked first, only to be refused once confirmed.
    asked = org.get(f"{url}?user={world.organiser.pk}", follow=True).content.decode()
    assert "only organiser" in asked and 'id="confirm-form"' not in asked
    assert list(world.club.organisers.all()) == [User.objects.get(username="olga")]
    # An organiser with no player of the club is not told they keep "their player".
    services.add_organiser(world.club, world.person)
    assert not Player.objects.filter(club=world.club, user=world.organiser).exists()
    question = _asks(org, f"{url}?user={world.organiser.pk}", "They keep their login, but")
    assert "their player" not in question


def test_the_questions_of_a_round_refused_go_back_to_the_desk_with_the_reason(
    world: PageWorld,
) -> None:
    tournament = _night(world)
    org = world.client(world.organiser)
    answer = org.get(f"/tournaments/{tournament.pk}/confirm/reseat", follow=True)
    assert "no round is seated and waiting to begin" in answer.content.decode()
    assert not Round.objects.filter(tournament=tournament).exists()


def test_a_question_whose_answer_would_be_refused_is_not_asked(world: PageWorld) -> None:
    # Found by trying: "Delete it? It has not started" of a tournament playing its round,
    # and a forfeit asked for a round beyond any; each POST was refused, after the question.
    tournament = _night(world)
    services.start_round(tournament, auto_check_in=True)
    org = world.client(world.organiser)
    for url, reason in (
        (f"/tournaments/{tournament.pk}/confirm/delete", "cannot be deleted"),
        (
            f"/tournaments/{tournament.pk}/confirm/forfeit?player={world.player.pk}&round=99",
            "has not begun",
        ),
        (
            f"/tournaments/{tournament.pk}/confirm/unforfeit?player={world.player.pk}&round=1",
            "has not begun",  # seated, not begun
        ),
        (
            f"/tournaments/{tournament.pk}/confirm/reseat"
            f"?fixed_player={world.bots[0].pk}&fixed_table=9",
            "fixed to table 9",
        ),
    ):
        answer = org.get(url, follow=True)
        page = answer.content.decode()
        assert answer.redirect_chain and 'id="confirm-form"' not in page, url
        assert reason in page, re.findall(r'role="status">([^<]*)<', page)
    assert Tournament.objects.filter(pk=tournament.pk).exists()


def test_no_withdrawal_or_absence_is_asked_that_would_be_refused(world: PageWorld) -> None:
    # A review's catch: once round 1 has begun a withdrawal is a drop, which waits for the
    # round being played; and a one-round tournament playing its round has none left to be
    # absent from. Each was asked, then refused once confirmed.
    tournament = services.create_tournament(
        world.club, "One round", "give_away", 1, table_min=2, table_max=3
    )
    for player in [world.player, *world.bots[:3]]:
        services.register(tournament, player)
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    org = world.client(world.organiser)
    base = f"/tournaments/{tournament.pk}"
    for url, reason in (
        (f"{base}/confirm/withdraw?player={world.bots[0].pk}", "is being played"),
        (f"{base}/confirm/absent?player={world.bots[0].pk}", "no rounds left"),
    ):
        page = org.get(url, follow=True).content.decode()
        assert 'id="confirm-form"' not in page, url
        assert reason in page, re.findall(r'role="status">([^<]*)<', page)
    own = world.client(world.person).get(f"{base}/me/withdraw", follow=True).content.decode()
    assert 'id="confirm-form"' not in own and "is being played" in own
    # Nor does the desk offer a round that does not exist (found by trying).
    desk = org.get(f"{base}/manage").content.decode()
    assert "round 2" not in desk and 'id="absent-form"' not in desk


@pytest.mark.parametrize(
    "language,words,wrong",
    [
        ("en", "Bot 5 is not registered in Club Night", "register them first"),
        ("ru", "Bot 5: нет регистрации в турнире «Club Night»", "зарегистрируйте"),
    ],
)
def test_withdrawing_or_dropping_a_player_never_registered_tells_the_organiser_so(
    world: PageWorld, language: str, words: str, wrong: str
) -> None:
    tournament = _night(world)
    stranger = world.bots[5]
    org = world.client(world.organiser)
    for action in ("withdraw", "drop"):
        url = f"/tournaments/{tournament.pk}/confirm/{action}"
        for answer in (
            org.get(f"{url}?player={stranger.pk}", follow=True, HTTP_ACCEPT_LANGUAGE=language),
            org.post(url, {"player": stranger.pk}, follow=True, HTTP_ACCEPT_LANGUAGE=language),
        ):
            said = [str(m) for m in answer.context["messages"]]
            assert said == [words], (action, said)
            assert wrong not in said[0]
    assert not Registration.objects.filter(tournament=tournament, player=stranger).exists()
