"""The size of one message a client may send on a socket, imported by the socket's consumer
and by the live server's worker (which loads before Django is set up, so this module imports
nothing of Django)."""

MESSAGE_MAX_BYTES = 64 * 1024
