/* alt_canonical_nan_conv.c: conv_base.c writing the canonical NaN (canonical_nan.h). */
#include "canonical_nan.h"
#include "wrap_conv.h"
