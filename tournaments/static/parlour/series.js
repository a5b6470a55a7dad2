/* The tournament form: the series select offers only the series the chosen game allows.
 *
 * Each option of a select marked data-series-of="<id of the game select>" lists the games
 * that allow it (data-games, written by the server from the engine's metadata: the one
 * source). Without this script every series is listed and the server refuses one the game
 * does not allow, with a readable message.
 */
(function () {
  "use strict";

  function follow(series) {
    var game = document.getElementById(series.getAttribute("data-series-of"));
    if (!game) { return; }
    function update() {
      var chosen = game.value;
      Array.prototype.forEach.call(series.options, function (option) {
        var games = option.getAttribute("data-games");
        if (games === null) { return; } // "the game's usual series": always allowed
        var allowed = games.split(" ").indexOf(chosen) !== -1;
        option.hidden = !allowed;
        option.disabled = !allowed;
        if (!allowed && option.selected) { series.value = ""; }
      });
    }
    game.addEventListener("change", update);
    update();
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("select[data-series-of]"), follow);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
