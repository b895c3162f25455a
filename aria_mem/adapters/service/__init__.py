"""The aria-mem service, one process per account that holds the embedded index and the
in-process model for every other aria-mem process (docs/service.md):

- ``protocol``: what crosses the socket (operations, values, errors, bounds, the peer check);
- ``socket_server``: the server that answers on the socket;
- ``server``: the service process (``python -m``), its shards and models;
- ``client``: a client's connection, starting the service when none answers;
- ``shared_index``: the VectorIndex over the client;
- ``folder``: the folder rules (the lock, the log, stopping the service);
- ``takeover``: the daemon's take-over of a service started on demand.

Imports run one way: ``protocol`` and ``folder`` import no sibling (``folder`` names
``protocol`` only for types); ``socket_server`` imports ``protocol``; ``server`` imports
``socket_server``, ``folder`` and ``protocol``; ``client`` imports ``folder`` and ``protocol``,
never the server; ``shared_index`` imports ``client``; ``takeover`` imports ``client`` and
``server``.
"""
