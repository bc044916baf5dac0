# Unity builds (CMAKE_UNITY_BUILD, on in the release and asan-ubsan presets: CMakePresets.json;
# -DCMAKE_UNITY_BUILD=OFF builds file by file, so that editing one file rebuilds only that one).
#
# A unity batch compiles several .cc files of one target as one translation unit, so the headers
# and the template code they share are compiled once per batch instead of once per file: the
# iqsim_impl library's sources took 71 s of CPU in batches of 8 against 171 s one by one (g++ 12,
# -O2 -g1). CI builds both presets cold, within 40 minutes on 2 cores.
#
# The files below define file-local names (anonymous-namespace helpers and constants, test
# fixtures, PrintTo overloads) that another file of their target defines too; inside one batch
# those collide, so they compile on their own. A new file that collides fails the sanitizer build
# with a redefinition or an ambiguous call: give its helper a distinct name, or add it here.
# Types from an anonymous namespace in a batch member are not in the batch's main file, which
# g++'s -Wsubobject-linkage reports for every fixture; it says nothing about a one-file build.
if(NOT CMAKE_UNITY_BUILD)
  return()
endif()
target_compile_options(iqsim_options INTERFACE -Wno-subobject-linkage)
set(IQSIM_UNITY_SKIPPED
    cli/iqsim_binary_test.cc
    impl/assignment/high_availability_task_assignor_test.cc
    impl/iq/state_query_result_test.cc
    impl/processor/interactive_query_test.cc
    impl/processor/processor_state_manager_test.cc
    impl/state/position_serde_test.cc
    impl/state/rocksdb_store_test.cc
    impl/state/segmented_store_offsets_test.cc
    impl/state/session_stores_test.cc
    impl/state/transactional_key_value_store_test.cc
    impl/state/transactional_versioned_store_test.cc
    impl/state/transactional_window_session_store_test.cc
    impl/state/window_stores_test.cc
    model/expected_answer_test.cc
    model/session_history_test.cc
    model/window_history_test.cc
    properties/checks/result_matches_model_test.cc
    properties/checks/same_position_same_answer_test.cc
    properties/checks/window_judge_test.cc
    properties/shrink_test.cc
    reports/upgrade_report.cc
    scenario/scenario_parser_versioned_test.cc
    scenario/scenario_parser_window_test.cc
    sim/broker/log_cleaner_test.cc
    sim/broker/sim_broker_test.cc
    sim/broker/transaction_test.cc
    sim/cluster/sim_producer_test.cc
)
foreach(file IN LISTS IQSIM_UNITY_SKIPPED)
  string(REGEX MATCH "^[^/]+" folder "${file}")
  set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endforeach()
