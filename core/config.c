/* core/config.c - placeholder, being written */
