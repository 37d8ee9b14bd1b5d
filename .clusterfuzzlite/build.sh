#!/bin/bash -eu
# ClusterFuzzLite runs $SRC/build.sh: the same build as OSS-Fuzz's.
exec "$SRC/konform/fuzz/oss-fuzz/build.sh"
