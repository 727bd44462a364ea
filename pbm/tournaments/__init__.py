"""Tournament arithmetic (pure): pairing rounds and scoring tables.

:mod:`pbm.tournaments.pairing` makes round robins, Swiss rounds, knockout
brackets and pools; :mod:`pbm.tournaments.scoring` turns games into a table
with tie-breaks and a crosstable.  Nothing here touches the store or mail.
"""

from pbm.tournaments.pairing import (
    PairingError,
    knockout_bracket,
    knockout_next,
    pools,
    round_robin,
    swiss_round,
)
from pbm.tournaments.scoring import Game, Standing, crosstable, standings

__all__ = [
    "Game",
    "PairingError",
    "Standing",
    "crosstable",
    "knockout_bracket",
    "knockout_next",
    "pools",
    "round_robin",
    "standings",
    "swiss_round",
]
