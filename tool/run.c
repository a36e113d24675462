/* placeholder until the run verb lands */
#include <stdio.h>
#include "tool.h"
int cmd_run(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "mpilens run: not built yet\n"); return 2; }
