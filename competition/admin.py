"""Ratings, rating changes and the quick-play queue in the admin: shown, never written
(``core.admin``)."""

from core.admin import read_only_register

read_only_register("competition")
