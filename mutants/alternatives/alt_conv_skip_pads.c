/* alt_conv_skip_pads.c: conv_base.c with its zero-padded taps skipped, as
 * oneDNN and im2col without the padding compute a convolution, instead of
 * multiplied by the pad's 0. The two differ only where a padded tap's weight
 * is Inf or NaN (0 * Inf is NaN); the spec leaves that edge open, so this is
 * a correct kernel and must pass (docs/tolerances.md, "Open edge semantics"). */
#define KONFORM_SKIP_PADS 1
#include "../conv_base.c"
