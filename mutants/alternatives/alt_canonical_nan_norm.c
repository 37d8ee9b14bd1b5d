/* alt_canonical_nan_norm.c: norm_base.c writing the canonical NaN (canonical_nan.h). */
#include "canonical_nan.h"
#include "wrap_norm.h"
