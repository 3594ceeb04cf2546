// Header-only: the types in csegment_interface.h. SwiftPM needs one source file per C target.
#include "csegment_interface.h"
