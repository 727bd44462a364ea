"""The domain: what the server knows and decides, with no mail in it.

The store and its migrations, accounts and their security, boards and the
turns played on them, clocks, results and ratings, tournaments.  Functions
take a :class:`~pbm.domain.context.Context` (store, config, the moment) and
return data; :func:`pbm.domain.results.conclude` is the one place a game
ends.  Errors a player is told about are in :mod:`.refusals`.
"""
