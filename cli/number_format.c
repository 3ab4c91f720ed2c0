// SPDX-License-Identifier: Apache-2.0
// Shortest round-trip decimal text of a double among 15, 16 and 17 significant digits.
#include "number_format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char* cli_format_double(char buf[CLI_NUMBER_SIZE], double x) {
    if (!isfinite(x)) {
        memcpy(buf, "null", 5);
        return buf;
    }

    // the first precision whose text parses back to exactly x (compared as bits, so -0 and 0
    // differ); %.17g always does for IEEE doubles
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, CLI_NUMBER_SIZE, "%.*g", digits, x);
        double back = strtod(buf, NULL);
        if (memcmp(&back, &x, sizeof(double)) == 0) {
            return buf;
        }
    }
    return buf;
}
