/* alt_flush_subnormals_tensor.c: tensor_base.c with subnormals flushed (flush_subnormals.h). */
#include "flush_subnormals.h"
#include "wrap_tensor.h"
