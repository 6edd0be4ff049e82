/* core/context.c - placeholder, being written */
