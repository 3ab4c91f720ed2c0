// SPDX-License-Identifier: Apache-2.0
// The one way the gradyn program prints a double: the shortest of %.15g, %.16g, %.17g that
// reads back (strtod) to the same bits.
#ifndef GDN_CLI_NUMBER_FORMAT_H
#define GDN_CLI_NUMBER_FORMAT_H

// room for any double printed with 17 significant digits, sign, exponent and NUL
#define CLI_NUMBER_SIZE 32

// the text of x in buf: the first of %.15g, %.16g, %.17g whose strtod is x bit for bit
// (0.005, not 0.0050000000000000001; 17 digits always round-trip), "-0" for negative zero;
// a non-finite x is written as "null" (the JSON writer's convention). Returns buf
const char* cli_format_double(char buf[CLI_NUMBER_SIZE], double x);

#endif
