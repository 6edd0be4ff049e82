#include <weft/weft.h>
int main(void) { return 0; }
