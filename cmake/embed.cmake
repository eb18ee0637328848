# SPDX-License-Identifier: LGPL-2.1-or-later
# Turns INPUT into a C file defining `const char SYMBOL[]` with its exact bytes.
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT}; do not edit. */\nconst char ${SYMBOL}[] = {${bytes}0x00};\n")
