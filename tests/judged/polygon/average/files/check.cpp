// Polygon ships std::rcmp6's source here; the conversion uses the built-in
// `float` checker (epsilon 1e-6) instead, so this file is not compiled.
int main() { return 3; }
