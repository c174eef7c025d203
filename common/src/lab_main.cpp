// main() of every lab executable; the lab itself comes from labNN.cpp's this_lab().
#include "convlab/runner.hpp"

int main(int argc, char** argv) { return convlab::run_lab(argc, argv, convlab::this_lab()); }
