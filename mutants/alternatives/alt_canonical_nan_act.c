/* alt_canonical_nan_act.c: act_base.c writing the canonical NaN (canonical_nan.h). */
#include "canonical_nan.h"
#include "wrap_act.h"
