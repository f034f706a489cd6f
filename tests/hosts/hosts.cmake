# wisp on two hosts made of namespaces (tests/hosts/run.sh, tools/hosts.sh):
# label `hosts`; root only, skipped (exit 77) otherwise.
wisp_test_program(t_split "${CMAKE_CURRENT_SOURCE_DIR}/hosts/split.c")
foreach(case topology split transparency ghosts cleanup link)
  wisp_add_script_test(hosts.${case} NP 4 "${CMAKE_CURRENT_SOURCE_DIR}/hosts/run.sh" ${case} ${WISP_MPI}
                       "${WISP_WISPRUN}" $<TARGET_FILE_DIR:t_split>)
  set_tests_properties(script.hosts.${case} PROPERTIES SKIP_RETURN_CODE 77)
  set_property(TEST script.hosts.${case} APPEND PROPERTY LABELS hosts)
endforeach()
