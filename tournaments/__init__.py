"""Clubs, players, tournaments, seatings, series and standings; the web pages and the API."""
