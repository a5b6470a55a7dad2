/* Parlour's live pages, in plain JavaScript (docs/browser.md).
 *
 * An element with [data-live] holds a server-rendered fragment; its
 * data-fragment-url returns the same fragment, freshly rendered.  Inside the
 * fragment, every [data-stream-url] names a stream of the API that says when
 * it changed (/api/v1/games/<id>/stream, /api/v1/tournaments/<id>/stream):
 * each change makes the fragment be fetched again (at most once per
 * data-interval milliseconds).  A game's changes come over the page's one
 * WebSocket, the push channel (/api/v1/ws): it follows every game the page
 * names; a tournament's, and every stream when the socket cannot be opened,
 * come as Server-Sent Events.  A stream that ends ("end" event, a game over)
 * is closed; streams named in a new fragment are opened, those no longer named
 * closed.  A data-poll attribute (ms) also fetches the fragment that often
 * (the projector).
 *
 * Forms with [data-async] (the play page's actions) are sent with fetch and
 * the fragment refreshed at once; without JavaScript they post as usual.
 * [data-deadline] elements count down to their ISO time, corrected by the
 * server's clock (data-now on the fragment).
 */
(function () {
  "use strict";

  var EVENTS = ["dealt", "move", "end", "message"];

  function Live(root) {
    this.root = root;
    this.url = root.getAttribute("data-fragment-url");
    this.interval = parseInt(root.getAttribute("data-interval") || "500", 10);
    this.sources = {};   // stream key -> EventSource
    this.pushed = {};    // stream key -> the game followed over the push channel
    this.ended = {};     // stream keys that said "end"
    this.busy = false;
    this.again = false;
    this.sending = false; // a move of the page is on its way
    this.moves = 0;       // moves sent from the page so far
    this.last = 0;
    this.shown = null;    // the last fragment swapped in, as steady() reads it
    this.timer = null;
    this.poll = null;
    this.sync();
    // data-poll (ms): also fetch the fragment that often, for pages that must change
    // without a game event (the projector between rounds: a round seated, a break's clock).
    var every = parseInt(root.getAttribute("data-poll") || "0", 10);
    if (every > 0) {
      var self = this;
      setInterval(function () { self.schedule(); }, every);
    }
  }

  Live.prototype.sync = function () {
    var wanted = {};
    var nodes = this.root.querySelectorAll("[data-stream-url]");
    for (var i = 0; i < nodes.length; i++) {
      var key = nodes[i].getAttribute("data-stream-key") || nodes[i].getAttribute("data-stream-url");
      wanted[key] = nodes[i].getAttribute("data-stream-url");
    }
    var key2;
    for (key2 in this.sources) {
      if (!(key2 in wanted)) { this.sources[key2].close(); delete this.sources[key2]; }
    }
    for (key2 in this.pushed) {
      if (!(key2 in wanted)) { push.drop(this, this.pushed[key2]); delete this.pushed[key2]; }
    }
    for (key2 in wanted) {
      if (key2 in this.sources || key2 in this.pushed || this.ended[key2]) { continue; }
      var game = push.game(wanted[key2]);
      if (game) {
        this.pushed[key2] = game.id;
        push.want(this, game);
      } else {
        this.open(key2, wanted[key2]);
      }
    }
    var pushed = Object.keys(this.pushed).length;
    this.root.setAttribute("data-streams", Object.keys(this.sources).length + pushed);
    this.root.setAttribute("data-pushed", pushed);
  };

  // The push channel told of game ``id``: a new view, or (over) the last one.
  Live.prototype.pushedView = function (id, over) {
    var key;
    for (key in this.pushed) {
      if (this.pushed[key] === id && over) {
        delete this.pushed[key];
        this.ended[key] = true;
      }
    }
    this.root.setAttribute("data-last-event", (over ? "end " : "move ") + id);
    this.schedule();
  };

  // The push channel cannot carry this page's games: follow them as Server-Sent Events.
  Live.prototype.unpushed = function () {
    for (var key in this.pushed) { push.drop(this, this.pushed[key]); }
    this.pushed = {};
    this.sync();
  };

  Live.prototype.open = function (key, url) {
    var self = this;
    var source = new EventSource(url, { withCredentials: true });
    this.sources[key] = source;
    var onEvent = function (event) {
      if (event.type === "end") {
        source.close();
        delete self.sources[key];
        self.ended[key] = true;
      }
      self.root.setAttribute("data-last-event", event.type + " " + (event.lastEventId || ""));
      self.schedule();
    };
    for (var i = 0; i < EVENTS.length; i++) { source.addEventListener(EVENTS[i], onEvent); }
    source.onerror = function () {
      // The browser reconnects by itself (with Last-Event-ID); a stream that was
      // refused for good falls back to fetching the fragment every few seconds.
      if (source.readyState === EventSource.CLOSED) {
        delete self.sources[key];
        self.fallback();
      }
    };
  };

  Live.prototype.fallback = function () {
    var self = this;
    if (this.poll) { return; }
    this.poll = setInterval(function () { self.schedule(); }, 5000);
  };

  Live.prototype.schedule = function () {
    var self = this;
    if (this.busy) { this.again = true; return; }
    if (this.timer) { return; }
    var wait = Math.max(0, this.last + this.interval - Date.now());
    this.timer = setTimeout(function () { self.timer = null; self.refresh(); }, wait);
  };

  Live.prototype.refresh = function () {
    var self = this;
    // While a move is being sent its buttons stay as they are (disabled), never replaced
    // under a second tap: the page is fetched again once the answer has arrived.
    if (this.busy || this.sending) { this.again = true; return Promise.resolve(); }
    this.busy = true;
    this.last = Date.now();
    var sent = this.moves;
    return fetch(this.url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        // A fragment fetched before a move was sent must not replace its disabled buttons.
        if (self.sending || sent !== self.moves) { self.again = true; return; }
        self.swap(html);
      })
      .catch(function () { /* keep what is shown; the next event tries again */ })
      .then(function () {
        self.busy = false;
        if (self.again && !self.sending) { self.again = false; self.schedule(); }
      });
  };

  // What a fragment says, without what changes on every rendering: the server's clock
  // (data-now) and Django's masked CSRF token.
  function steady(html) {
    // (\x22 is a double quote: written so, the regular expressions hold no string quotes.)
    return html.replace(/ data-now=\x22[^\x22]*\x22/g, "")
      .replace(/(name=\x22csrfmiddlewaretoken\x22 value=\x22)[^\x22]*/g, "$1");
  }

  Live.prototype.swap = function (html) {
    // A fragment that says what is shown already is not swapped in: replacing the buttons
    // between a person's press and release would lose their tap (a bot's move announced
    // twice, a stream reconnecting, the projector's poll).
    var said = steady(html);
    if (said === this.shown && !this.flash) { return; }
    this.shown = said;
    var focused = document.activeElement && this.root.contains(document.activeElement);
    this.root.innerHTML = html;
    this.sync();
    clocks(this.root);
    var refreshed = this.root.getAttribute("data-refreshes") || "0";
    this.root.setAttribute("data-refreshes", String(parseInt(refreshed, 10) + 1));
    if (focused) {
      var first = this.root.querySelector("[data-action]");
      if (first) { first.focus({ preventScroll: true }); }
    }
    if (this.flash) {
      var box = this.root.querySelector("[data-inline-flash]");
      if (box) { box.textContent = this.flash; box.hidden = false; }
      this.flash = null;
    }
    this.root.dispatchEvent(new CustomEvent("parlour:updated", { bubbles: true }));
  };

  // -- the push channel --------------------------------------------------------
  //
  // One WebSocket for the page (docs/api.md, "The push channel"), opened when a fragment
  // first names a game's stream.  It follows each game named, after the sequence in the
  // stream's address (the fragment shows the game up to there); each view it pushes is
  // a hint to fetch the fragment, as a stream's event is.  Lost, it is opened again
  // (after 1 s, doubling to 30 s) and follows from the last sequence seen: the server
  // pushes at once what moved meanwhile.  If it never opens on the page (a server or a
  // proxy without WebSockets, too many open already), the page's games are followed as
  // Server-Sent Events; a follow refused makes that game's page fetch every 5 s.

  var GAME_STREAM = /\/api\/v1\/games\/(\d+)\/stream(?:\?last_event_id=(-?\d+))?$/;

  var push = {
    socket: null,
    path: null,     // the socket's address (the site's prefix, then /api/v1/ws)
    opened: false,  // whether the socket now open has said hello
    everOpened: false,
    failed: false,  // the socket cannot be used on this page: streams are SSE
    wait: 1000,     // ms before opening it again once lost
    games: {},      // game id -> { after: the last sequence seen, lives: [Live, ...] }

    // The game a stream's address names, if the push channel can carry it.
    game: function (url) {
      var found = GAME_STREAM.exec(url);
      if (!found || push.failed || !window.WebSocket) { return null; }
      push.path = push.path || url.slice(0, found.index) + "/api/v1/ws";
      return { id: parseInt(found[1], 10), after: found[2] ? parseInt(found[2], 10) : -1 };
    },

    want: function (live, game) {
      var entry = push.games[game.id];
      if (!entry) {
        entry = push.games[game.id] = { after: game.after, lives: [] };
        push.send({ type: "follow", game: game.id, after: entry.after });
      }
      if (entry.lives.indexOf(live) < 0) { entry.lives.push(live); }
      push.connect();
    },

    drop: function (live, id) {
      var entry = push.games[id];
      if (!entry) { return; }
      entry.lives = entry.lives.filter(function (other) { return other !== live; });
      if (!entry.lives.length) {
        delete push.games[id];
        push.send({ type: "unfollow", game: id });
      }
    },

    send: function (message) {
      if (push.opened) { push.socket.send(JSON.stringify(message)); }
    },

    connect: function () {
      if (push.socket || push.failed) { return; }
      var scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
      var socket = new WebSocket(scheme + "//" + window.location.host + push.path);
      push.socket = socket;
      socket.onmessage = function (event) {
        var message;
        try { message = JSON.parse(event.data); } catch (error) { return; }
        if (message.type === "hello") {
          push.opened = push.everOpened = true;
          push.wait = 1000;
          document.documentElement.setAttribute("data-push", "open");
          for (var id in push.games) {
            push.send({ type: "follow", game: parseInt(id, 10), after: push.games[id].after });
          }
        } else if (message.type === "view") {
          push.told(message.game, message.sequence, message.view.status === "over");
        } else if (message.type === "problem" && message.game && !message.key) {
          // A follow refused (too many open, no longer visible): that game's pages fetch
          // the fragment every few seconds instead; the database restarting is retried
          // by the server itself (503), the pages keep what they show meanwhile.
          if (message.problem && message.problem.status !== 503) { push.refused(message.game); }
        }
      };
      socket.onclose = function () {
        push.socket = null;
        push.opened = false;
        if (!push.everOpened) { push.fail(); return; }
        document.documentElement.setAttribute("data-push", "reconnecting");
        setTimeout(push.connect, push.wait);
        push.wait = Math.min(push.wait * 2, 30000);
      };
    },

    told: function (id, sequence, over) {
      var entry = push.games[id];
      if (!entry) { return; }
      entry.after = Math.max(entry.after, sequence);
      var lives = entry.lives.slice();
      if (over) { delete push.games[id]; }
      for (var i = 0; i < lives.length; i++) { lives[i].pushedView(id, over); }
    },

    refused: function (id) {
      var entry = push.games[id];
      if (!entry) { return; }
      delete push.games[id];
      for (var i = 0; i < entry.lives.length; i++) { entry.lives[i].fallback(); }
    },

    // Never opened: every game of the page as Server-Sent Events, from now on.
    fail: function () {
      push.failed = true;
      document.documentElement.setAttribute("data-push", "failed");
      var lives = [];
      for (var id in push.games) { lives = lives.concat(push.games[id].lives); }
      push.games = {};
      for (var i = 0; i < lives.length; i++) { lives[i].unpushed(); }
    }
  };

  // -- clocks ----------------------------------------------------------------

  var skew = 0;

  function readSkew(scope) {
    var node = scope.querySelector("[data-now]");
    if (!node) { return; }
    var server = Date.parse(node.getAttribute("data-now"));
    if (!isNaN(server)) { skew = server - Date.now(); }
  }

  function clocks(scope) {
    readSkew(scope || document);
    tick();
  }

  function tick() {
    var nodes = document.querySelectorAll("[data-deadline]");
    var now = Date.now() + skew;
    for (var i = 0; i < nodes.length; i++) {
      var due = Date.parse(nodes[i].getAttribute("data-deadline"));
      if (isNaN(due)) { continue; }
      var left = Math.max(0, Math.ceil((due - now) / 1000));
      var text = left <= 0 ? gettext("time's up") :
        Math.floor(left / 60) + ":" + ("0" + (left % 60)).slice(-2);
      if (nodes[i].textContent !== text) { nodes[i].textContent = text; }
      nodes[i].classList.toggle("urgent", left <= 10);
    }
  }

  // -- forms sent with fetch ---------------------------------------------------

  function liveOf(node) {
    var root = node.closest("[data-live]");
    return root && root.parlourLive;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-async]")) { return; }
    event.preventDefault();
    // One move at a time: a second tap while the first is on its way sends nothing.
    if (form.getAttribute("data-sending") === "true") { return; }
    form.setAttribute("data-sending", "true");
    var data = new FormData(form, event.submitter || undefined);
    var buttons = form.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = true; }
    if (event.submitter) { event.submitter.setAttribute("aria-busy", "true"); }
    var live = liveOf(form);
    if (live) { live.sending = true; live.moves += 1; }
    var flash = form.parentNode.querySelector("[data-inline-flash]");
    fetch(form.getAttribute("action") || window.location.href, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" }
    })
      .then(function (response) { return response.json().catch(function () { return { ok: false, message: gettext("The server did not answer: try again.") }; }); })
      .then(function (answer) {
        if (!answer.ok && flash) { flash.textContent = answer.message; flash.hidden = false; }
        if (live) {
          if (!answer.ok) { live.flash = answer.message; }
          live.sending = false;
          live.again = false;
          return live.refresh();
        }
        window.location.reload();
      })
      .catch(function () {
        if (live) { live.sending = false; }
        form.removeAttribute("data-sending");
        if (event.submitter) { event.submitter.removeAttribute("aria-busy"); }
        for (var j = 0; j < buttons.length; j++) { buttons[j].disabled = false; }
        if (flash) { flash.textContent = gettext("The move could not be sent: check the connection and try again."); flash.hidden = false; }
      });
  });

  // -- start -------------------------------------------------------------------

  function start() {
    var roots = document.querySelectorAll("[data-live]");
    for (var i = 0; i < roots.length; i++) {
      if (!roots[i].parlourLive) { roots[i].parlourLive = new Live(roots[i]); }
    }
    clocks(document);
    setInterval(tick, 250);
    document.documentElement.setAttribute("data-live-ready", "true");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
