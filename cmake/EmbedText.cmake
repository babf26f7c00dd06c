# cmake -DINPUT=file -DOUTPUT=file.inc -P EmbedText.cmake
# Writes the text of INPUT as a C++ raw string literal into OUTPUT, so files
# such as the DSL prelude ship inside the binary.
file(READ ${INPUT} text)
file(WRITE ${OUTPUT} "R\"PLASTIC_EMBED(${text})PLASTIC_EMBED\"\n")
