"""``turfwar simulate``: a whole season played by bots through the gateway's public HTTP API.

The bots live in home territories, drive to nearby territories at road speeds, claim from well inside them with
realistic GPS fixes and play every card type with simple strategies; a few cheat on purpose. The organizer's
manual clock (``POST /admin/clock``) moves the season forward. At the end the run checks invariants (scores equal
a full recompute, one owner at a time, refusals carry rule codes, cheaters and only cheaters flagged, every
consumed card matched by its effect) and writes results, pictures and the event log.
"""

from turfwar.simulate.config import SimConfig

__all__ = ["SimConfig"]
