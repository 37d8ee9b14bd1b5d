/* alt_quant_fma.c: a correct quantizer that rounds differently: quant_base.c
 * (ggml's reference quantizers) with every multiply-add that a contracting
 * compiler fuses (GCC's -ffp-contract=fast with -mfma or on ARM64, nvcc by
 * default) written as fmaf, one rounding where the reference has two: Q4_0's
 * x * id + 8.5 and Q4_K's least-squares sums, determinants, fits and errors.
 * Such a build differs from ggml's bits on Q4_0 values at a rounding boundary
 * and on many Q4_K super-blocks, and is as good a quantizer: it must pass in
 * the default profile (docs/ops-linalg.md, "How Quantize is judged"). */
#define KONFORM_QUANT_FMA 1
#include "../quant_base.c"
