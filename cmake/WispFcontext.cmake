# The context switch of the user-level threads (src/ult/fcontext.h): the
# x86-64 System V assembly of Boost.Context (Debian's libboost-context-dev,
# the static archive), taken out of the archive as one relocatable object
# with its two functions renamed wisp_ult_*, so that libwisp.so and
# libwisp.a carry it and a program's own Boost cannot clash with it.
find_library(WISP_BOOST_CONTEXT_ARCHIVE NAMES libboost_context.a REQUIRED
             DOC "Boost.Context's static library (libboost-context-dev)")
find_program(WISP_OBJCOPY NAMES objcopy REQUIRED)
set(fc_dir "${PROJECT_BINARY_DIR}/fcontext")
set(WISP_FCONTEXT_OBJECT "${fc_dir}/wisp_fcontext.o")
add_custom_command(
  OUTPUT "${WISP_FCONTEXT_OBJECT}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${fc_dir}"
  COMMAND "${CMAKE_COMMAND}" -E chdir "${fc_dir}" "${CMAKE_AR}" x "${WISP_BOOST_CONTEXT_ARCHIVE}"
          make_x86_64_sysv_elf_gas.o jump_x86_64_sysv_elf_gas.o
  COMMAND "${CMAKE_LINKER}" -r "${fc_dir}/make_x86_64_sysv_elf_gas.o"
          "${fc_dir}/jump_x86_64_sysv_elf_gas.o" -o "${fc_dir}/fcontext_boost.o"
  COMMAND "${WISP_OBJCOPY}" --redefine-sym make_fcontext=wisp_ult_make_fcontext
          --redefine-sym jump_fcontext=wisp_ult_jump_fcontext
          "${fc_dir}/fcontext_boost.o" "${WISP_FCONTEXT_OBJECT}"
  DEPENDS "${WISP_BOOST_CONTEXT_ARCHIVE}"
  COMMENT "Boost.Context's context switch, renamed wisp_ult_*"
  VERBATIM)
add_custom_target(wisp_fcontext DEPENDS "${WISP_FCONTEXT_OBJECT}")
set_source_files_properties("${WISP_FCONTEXT_OBJECT}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
