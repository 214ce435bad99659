"""Live play at the edge: the game sockets, their messages, broadcasts, presence and the fast move path."""
