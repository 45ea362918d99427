// Prints init_weights(dModel, heads, dK, dV, seed) as JSON, each float with 9 significant digits
// (enough to round-trip a float32), for the JavaScript tests to compare against WebAssembly.
//   dump_init_weights DMODEL HEADS DK DV SEED
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "attention/attention.hpp"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s DMODEL HEADS DK DV SEED\n", argv[0]);
    return 2;
  }
  attn::Weights w;
  const attn::Status s = attn::init_weights(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]),
                                            std::atoi(argv[4]), std::strtoull(argv[5], nullptr, 10), &w);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  const std::pair<const char*, const std::vector<float>*> tensors[] = {
      {"wq", &w.wq}, {"wk", &w.wk}, {"wv", &w.wv}, {"wo", &w.wo}};
  std::printf("{");
  for (std::size_t t = 0; t < 4; ++t) {
    std::printf("%s\"%s\":[", t ? "," : "", tensors[t].first);
    const std::vector<float>& values = *tensors[t].second;
    for (std::size_t i = 0; i < values.size(); ++i) std::printf("%s%.9g", i ? "," : "", values[i]);
    std::printf("]");
  }
  std::printf("}\n");
  return 0;
}
