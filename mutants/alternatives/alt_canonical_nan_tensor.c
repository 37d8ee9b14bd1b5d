/* alt_canonical_nan_tensor.c: tensor_base.c writing the canonical NaN (canonical_nan.h). */
#include "canonical_nan.h"
#include "wrap_tensor.h"
