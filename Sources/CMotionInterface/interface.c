// Header-only: the types in cmotion_interface.h. SwiftPM needs one source file per C target.
#include "cmotion_interface.h"
