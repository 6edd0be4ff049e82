/* core/output.c - placeholder, being written */
