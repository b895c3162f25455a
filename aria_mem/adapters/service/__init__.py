"""The aria-mem service, one process per account that holds the embedded index and the
in-process model for every other aria-mem process (docs/service.md):

- ``protocol``: what crosses the socket (operations, values, errors, bounds, the peer check);
- ``socket_server``: the server that answers on the socket;
- ``server``: the service process (``python -m``), its shards and models;
- ``client``: a client's connection, starting the service when none answers;
- ``shared_index``: the VectorIndex over the client;
- ``folder``: the folder rules (the lock, the log, stopping the service);
- ``takeover``: the daemon's take-over of a service started on demand.

Imports run one way: a module imports only those before it in protocol, folder,
socket_server, server, client, shared_index, takeover; and ``client`` imports neither
``socket_server`` nor ``server`` (a client never loads the service's code).
"""
