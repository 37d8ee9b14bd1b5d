/* alt_flush_subnormals_act.c: act_base.c with subnormals flushed (flush_subnormals.h). */
#include "flush_subnormals.h"
#include "wrap_act.h"
