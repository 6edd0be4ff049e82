/* core/sim.c - placeholder, being written */
