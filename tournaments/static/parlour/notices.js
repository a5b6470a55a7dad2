/* "Your game has started": the notices of every page a logged-in person has open
 * (docs/browser.md, "Notices").
 *
 * #notices[data-notices-url] (base.html, logged-in people only) is filled from
 * GET /me/notices, fetched at once and then every data-interval milliseconds:
 * a notice with a link to the play page for each running game of theirs that has
 * just started or waits for their move (not the game whose play page this is).
 * A started game is told until its play page is opened (or the notice closed), a
 * move awaited until it is made.  A poll is one small request that holds no stream slot.
 *
 * With the opt-in control ([data-notify-toggle] in the header) turned on, a notice
 * not announced before (in any tab: the keys are kept in localStorage) also shows
 * the browser's Notification, if the person allowed it, and plays a short tone.
 */
(function () {
  "use strict";

  var OPT_IN = "parlour-notify";       // "on" when the person asked for alerts
  var ANNOUNCED = "parlour-announced"; // keys of notices already announced
  var STARTED = "parlour-started";     // games whose start was told (shown once per game)
  var DISMISSED = "parlour-dismissed"; // keys the person closed

  function load(store, name) {
    try { return JSON.parse(store.getItem(name) || "[]"); } catch (error) { return []; }
  }

  function save(store, name, keys) {
    try { store.setItem(name, JSON.stringify(keys.slice(-200))); } catch (error) { /* private mode */ }
  }

  function optedIn() {
    try { return window.localStorage.getItem(OPT_IN) === "on"; } catch (error) { return false; }
  }

  var audio = null;

  function tone() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) { return false; }
    try {
      audio = audio || new Context();
      if (audio.state === "suspended") { audio.resume(); }
      var oscillator = audio.createOscillator();
      var gain = audio.createGain();
      oscillator.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
      oscillator.connect(gain);
      gain.connect(audio.destination);
      oscillator.start();
      oscillator.stop(audio.currentTime + 0.35);
      return true;
    } catch (error) {
      return false;
    }
  }

  function count(root, name) {
    root.setAttribute(name, String(parseInt(root.getAttribute(name) || "0", 10) + 1));
  }

  function Notices(root) {
    this.root = root;
    this.url = root.getAttribute("data-notices-url");
    this.interval = parseInt(root.getAttribute("data-interval") || "5000", 10);
    this.list = root.querySelector("[data-notice-list]");
    var playing = document.querySelector("[data-play-game]");
    this.here = playing ? parseInt(playing.getAttribute("data-play-game"), 10) : null;
    this.toggle = document.querySelector("[data-notify-toggle]");
    if (this.here !== null) {
      // The person is at this game's table: its start needs telling no more.
      var started = load(window.localStorage, STARTED);
      if (started.indexOf(this.here) < 0) { started.push(this.here); save(window.localStorage, STARTED, started); }
    }
    this.setUpToggle();
    this.poll();
  }

  Notices.prototype.setUpToggle = function () {
    var self = this;
    var button = this.toggle;
    if (!button) { return; }
    button.hidden = false;
    this.showToggle();
    button.addEventListener("click", function () {
      var on = !optedIn();
      try { window.localStorage.setItem(OPT_IN, on ? "on" : "off"); } catch (error) { /* private mode */ }
      if (on) {
        // Asked in the click itself: browsers allow a permission prompt and sound only then.
        if (window.Notification && Notification.permission === "default") {
          Notification.requestPermission().then(function () { self.showToggle(); });
        }
        tone();
      }
      self.showToggle();
    });
  };

  Notices.prototype.showToggle = function () {
    if (!this.toggle) { return; }
    var on = optedIn();
    var blocked = on && window.Notification && Notification.permission === "denied";
    this.toggle.setAttribute("aria-pressed", on ? "true" : "false");
    this.toggle.textContent = on ? (blocked ? gettext("Alerts: sound only") : gettext("Alerts: on")) : gettext("Alerts: off");
    this.toggle.title = on
      ? gettext("A notification and a short sound when one of your games starts or waits for you (click to turn off)")
      : gettext("Click for a notification and a short sound when one of your games starts or waits for you");
  };

  Notices.prototype.poll = function () {
    var self = this;
    fetch(this.url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (response.status === 401) { throw new Error("logged out"); }
        if (!response.ok) { return null; }
        return response.json();
      })
      .then(function (answer) {
        if (answer) { self.show(answer.games || []); count(self.root, "data-polls"); }
        setTimeout(function () { self.poll(); }, self.interval);
      })
      .catch(function (error) {
        // Logged out in another tab: stop; a network error: try again later.
        if (String(error && error.message) !== "logged out") {
          setTimeout(function () { self.poll(); }, self.interval * 3);
        }
      });
  };

  Notices.prototype.notices = function (games) {
    var started = load(window.localStorage, STARTED);
    var found = [];
    for (var i = 0; i < games.length; i++) {
      var game = games[i];
      if (game.game_id === this.here) { continue; }
      var name = interpolate(gettext("%(name)s game %(number)s"), { name: game.game_name, number: game.game_id }, true);
      if (game.tournament_name) {
        name = interpolate(gettext("%(game)s (%(tournament)s)"), { game: name, tournament: game.tournament_name }, true);
      }
      if (game.my_turn) {
        found.push({ key: game.game_id + ":turn:" + game.sequence, game: game,
          text: interpolate(gettext("Your move: your %(game)s is waiting for you."), { game: name }, true), turn: true });
      } else if (started.indexOf(game.game_id) < 0) {
        found.push({ key: game.game_id + ":start", game: game,
          text: interpolate(gettext("Your game has started: %(game)s."), { game: name }, true), turn: false });
      }
    }
    return found;
  };

  Notices.prototype.show = function (games) {
    var self = this;
    var dismissed = load(window.sessionStorage, DISMISSED);
    var announced = load(window.localStorage, ANNOUNCED);
    var shown = this.notices(games).filter(function (n) { return dismissed.indexOf(n.key) < 0; });
    this.list.textContent = "";
    var fresh = [];
    shown.forEach(function (notice) {
      var item = document.createElement("li");
      item.setAttribute("data-notice", notice.key);
      item.className = notice.turn ? "turn" : "";
      var text = document.createElement("span");
      text.textContent = notice.text + " ";
      var link = document.createElement("a");
      link.className = "button primary";
      link.href = notice.game.play_url;
      link.textContent = gettext("Play");
      link.setAttribute("data-notice-link", "");
      var close = document.createElement("button");
      close.type = "button";
      close.className = "link";
      close.textContent = "×";
      close.setAttribute("aria-label", gettext("Hide this notice"));
      close.addEventListener("click", function () {
        var keys = load(window.sessionStorage, DISMISSED);
        keys.push(notice.key);
        save(window.sessionStorage, DISMISSED, keys);
        item.remove();
        self.root.hidden = !self.list.children.length;
      });
      item.appendChild(text);
      item.appendChild(link);
      item.appendChild(close);
      self.list.appendChild(item);
      if (announced.indexOf(notice.key) < 0) { fresh.push(notice); }
    });
    this.root.hidden = !shown.length;
    this.root.setAttribute("data-notices", String(shown.length));
    if (!fresh.length) { return; }
    fresh.forEach(function (notice) { announced.push(notice.key); });
    save(window.localStorage, ANNOUNCED, announced);
    if (!optedIn()) { return; }
    if (tone()) { count(this.root, "data-sounded"); }
    if (window.Notification && Notification.permission === "granted") {
      var first = fresh[0];
      try {
        var more = fresh.length - 1;
        var shownNote = new Notification(first.turn ? gettext("Your move") : gettext("Your game has started"), {
          body: first.text + (more ? " " + interpolate(ngettext("(and %s more)", "(and %s more)", more), [more]) : ""),
          tag: "parlour-" + first.key
        });
        shownNote.onclick = function () { window.focus(); window.location.href = first.game.play_url; };
        count(this.root, "data-notified");
      } catch (error) { /* a browser that only allows notifications from a service worker */ }
    }
  };

  function start() {
    var root = document.getElementById("notices");
    if (root && root.getAttribute("data-notices-url") && !root.parlourNotices) {
      root.parlourNotices = new Notices(root);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
