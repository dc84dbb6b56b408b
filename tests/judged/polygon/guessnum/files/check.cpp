// Polygon ships std::wcmp's source here; the conversion uses the built-in
// `tokens` checker instead, so this file is not compiled.
#include "testlib.h"
int main(int argc, char **argv) { registerTestlibCmd(argc, argv); quitf(_fail, "not the built-in"); }
