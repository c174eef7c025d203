// Which peers this build has (see conv2d_peer.hpp).
#include "conv2d_peer.hpp"

namespace convlab::bench {

std::vector<std::unique_ptr<Conv2dPeer>> make_peers() {
  std::vector<std::unique_ptr<Conv2dPeer>> peers;
#ifdef CONVLAB_HAVE_NPP
  peers.push_back(make_npp_peer());
#endif
#ifdef CONVLAB_HAVE_CUDNN
  peers.push_back(make_cudnn_peer());
#endif
  peers.push_back(make_cufft_peer());
  std::string why;
  if (auto cupy = make_cupy_peer(&why)) peers.push_back(std::move(cupy));
  return peers;
}

std::vector<MissingPeer> missing_peers() {
  std::vector<MissingPeer> missing;
#ifndef CONVLAB_HAVE_NPP
  missing.push_back({"NPP nppiFilterBorder_32f_C1R",
                     "not built: CMake found no NPP filtering library (libnppif) in the CUDA toolkit"});
#endif
#ifndef CONVLAB_HAVE_CUDNN
  missing.push_back({"cuDNN", "not built: CMake found no cuDNN (set CONVLAB_CUDNN_ROOT)"});
#endif
  std::string why;
  if (!make_cupy_peer(&why)) missing.push_back({"CuPy cupyx.scipy.ndimage.correlate", why});
  return missing;
}

}  // namespace convlab::bench
