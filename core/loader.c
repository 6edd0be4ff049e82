/* core/loader.c - placeholder, being written */
