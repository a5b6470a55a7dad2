/* The replay page: step through a finished game's moves without reloading.
 *
 * The controls are plain links (?move=N#move-N) that work without JavaScript;
 * this script fetches the board of a move (?move=N&fragment=1), keeps the
 * address (?move=N#move-N) in step so it can be shared, follows #move-N links,
 * the arrow keys, the slider and an autoplay button.  A replay from one seat's point
 * of view (?seat=N, data-seat-query) keeps it in every address.
 */
(function () {
  "use strict";

  function start() {
    var root = document.querySelector("[data-replay]");
    if (!root) { return; }
    var base = root.getAttribute("data-url");
    // "seat=N&" when the replay follows one seat's point of view: every address keeps it.
    var seat = root.getAttribute("data-seat-query") || "";
    // The point-of-view form opens the move shown.
    var chosen = document.querySelector("[data-point-of-view] [name=move]");
    var total = parseInt(root.getAttribute("data-total"), 10);
    var current = parseInt(root.getAttribute("data-move"), 10);
    var board = document.getElementById("replay-board");
    var slider = root.querySelector("[data-slider]");
    var label = root.querySelector("[data-move-label]");
    var play = root.querySelector("[data-autoplay]");
    var speed = root.querySelector("[data-speed]");
    var cache = {};
    var timer = null;
    var wanted = current;

    function clamp(n) { return Math.max(0, Math.min(total, n)); }

    function fetchMove(n) {
      if (cache[n]) { return Promise.resolve(cache[n]); }
      return fetch(base + "?" + seat + "move=" + n + "&fragment=1", { credentials: "same-origin" })
        .then(function (r) { if (!r.ok) { throw new Error("HTTP " + r.status); } return r.text(); })
        .then(function (html) { cache[n] = html; return html; });
    }

    function links(n) {
      var steps = { first: 0, prev: clamp(n - 1), next: clamp(n + 1), last: total };
      for (var name in steps) {
        var a = root.querySelector('[data-step="' + name + '"]');
        if (a) { a.setAttribute("href", "?" + seat + "move=" + steps[name] + "#move-" + steps[name]); }
      }
      var items = root.querySelectorAll("ol.moves li");
      for (var i = 0; i < items.length; i++) {
        if (i === n) { items[i].setAttribute("aria-current", "step"); } else { items[i].removeAttribute("aria-current"); }
      }
      var item = document.getElementById("move-" + n);
      var list = root.querySelector("ol.moves");
      if (item && list) {
        var top = item.offsetTop - list.offsetTop;
        if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.clientHeight) {
          list.scrollTop = top - list.clientHeight / 2;
        }
      }
    }

    function go(n, push) {
      n = clamp(n);
      wanted = n;
      return fetchMove(n).then(function (html) {
        if (wanted !== n) { return; }
        board.innerHTML = html;
        current = n;
        if (chosen) { chosen.value = String(n); }
        root.setAttribute("data-move", String(n));
        slider.value = String(n);
        label.textContent = n + " / " + total;
        links(n);
        var address = "?" + seat + "move=" + n + "#move-" + n;
        if (push) { history.pushState({ move: n }, "", address); } else { history.replaceState({ move: n }, "", address); }
        if (n < total) { fetchMove(n + 1).catch(function () {}); }
      });
    }

    function stop() {
      if (timer) { clearInterval(timer); timer = null; }
      // A step of the autoplay still being fetched must not move the board after the pause.
      wanted = current;
      play.textContent = "▶ " + pgettext("replay autoplay", "Play");
      play.setAttribute("aria-pressed", "false");
    }

    function autoplay() {
      if (timer) { stop(); return; }
      if (current >= total) { go(0); }
      play.textContent = "❚❚ " + gettext("Pause");
      play.setAttribute("aria-pressed", "true");
      timer = setInterval(function () {
        if (current >= total) { stop(); return; }
        go(current + 1);
      }, parseInt(speed.value, 10));
    }

    root.addEventListener("click", function (event) {
      var a = event.target.closest("a[data-step], a[data-move]");
      if (!a || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      event.preventDefault();
      var step = a.getAttribute("data-step");
      var n = a.hasAttribute("data-move") ? parseInt(a.getAttribute("data-move"), 10) :
        { first: 0, prev: current - 1, next: current + 1, last: total }[step];
      go(n, true);
    });
    slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });
    play.addEventListener("click", autoplay);
    speed.addEventListener("change", function () { if (timer) { stop(); autoplay(); } });
    document.addEventListener("keydown", function (event) {
      if (event.target.closest("input, select, textarea")) { return; }
      if (event.key === "ArrowRight") { go(current + 1); event.preventDefault(); }
      if (event.key === "ArrowLeft") { go(current - 1); event.preventDefault(); }
    });
    window.addEventListener("popstate", function (event) {
      if (event.state && typeof event.state.move === "number") { go(event.state.move); }
    });
    window.addEventListener("hashchange", function () {
      var m = /^#move-(\d+)$/.exec(location.hash);
      if (m && parseInt(m[1], 10) !== current) { go(parseInt(m[1], 10)); }
    });

    // Without this script the slider and the autoplay do nothing: they are shown only now.
    play.hidden = false;
    root.querySelector("[data-slider-label]").hidden = false;
    root.querySelector("[data-speed-label]").hidden = false;
    // A link to #move-N (without ?move=N) opens that move.
    var hash = /^#move-(\d+)$/.exec(location.hash);
    var query = /[?&]move=(\d+)/.exec(location.search);
    if (hash && (!query || query[1] !== hash[1])) {
      go(parseInt(hash[1], 10));
    } else {
      links(current);
    }
    root.setAttribute("data-ready", "true");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
