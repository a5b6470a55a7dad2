"""The browser's pages: server-rendered, with small progressive enhancement (docs/browser.md).

One module per resource: :mod:`~tournaments.web.home` (the home page, the health
check), :mod:`~tournaments.web.tournaments` (a tournament, a table),
:mod:`~tournaments.web.games` (a game as a spectator sees it),
:mod:`~tournaments.web.replay`, :mod:`~tournaments.web.play` (a seat's page and its
actions), :mod:`~tournaments.web.players`, :mod:`~tournaments.web.me` (the
logged-in person's page and settings) and :mod:`~tournaments.web.desk` (the
organiser's pages); :mod:`~tournaments.web.common` holds what they share.

Every live page is a server-rendered *fragment* inside the page: ``?fragment=1``
returns the fragment alone, and ``static/parlour/live.js`` fetches it again each
time the API's Server-Sent Events stream of the game (or tournament) sends an
event.  Without JavaScript every page still works (reload to see what changed).

The views are thin: they call the use cases of :mod:`tournaments.services`,
:mod:`tournaments.services.desk` and the game service (:mod:`tournaments.play`), and read
what they show through :mod:`tournaments.services.queries`; none of them reads the event
store (a test walks their imports: tests/project/test_thin_views.py).
"""
