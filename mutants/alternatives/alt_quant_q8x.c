/* alt_quant_q8x.c: correct q8x matmuls written another way: quant_base.c
 * with x's quants computed by a division, x / d (Q8_K: x / (1 / iscale)),
 * where ggml multiplies by the reciprocal, and each output's block terms
 * added in float from the last block to the first. Its quants differ from
 * ggml's where x / d lies at a rounding boundary, its sums round elsewhere:
 * a correct backend, which the default profile must pass (docs/ops-linalg.md,
 * "The q8x matmuls"). */
#define KONFORM_Q8X_ALT 1
#include "../quant_base.c"
