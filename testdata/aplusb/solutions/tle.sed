# never ends: a branch back to its own label
:forever
bforever
