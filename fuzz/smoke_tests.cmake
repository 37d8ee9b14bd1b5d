# ctest label fuzz-smoke, in builds without libFuzzer: every target replays its
# seed corpus and the committed corpus of past findings on the built-in
# backends (a correct backend must give no finding), the parser targets replay
# the fixtures, and `konform repro` replays every fixture and regression.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(_seeds ${CMAKE_CURRENT_BINARY_DIR}/seeds)
set(_findings ${CMAKE_CURRENT_BINARY_DIR}/findings)

add_test(NAME fuzz.seeds COMMAND konform_fuzz_seeds ${_seeds} 16)
set_tests_properties(fuzz.seeds PROPERTIES FIXTURES_SETUP konform_fuzz_seeds LABELS fuzz-smoke TIMEOUT 120)

foreach(stem IN LISTS KONFORM_FUZZ_FAMILIES)
  set(_corpora ${_seeds}/${stem})
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${stem})
    list(APPEND _corpora ${CMAKE_CURRENT_SOURCE_DIR}/corpus/${stem})
  endif()
  foreach(backend scalar simd:all)
    string(REPLACE ":" "_" tag ${backend})
    add_test(NAME fuzz.replay.${stem}.${tag} COMMAND konform_fuzz_${stem} -min_inputs=10 ${_corpora})
    set_tests_properties(fuzz.replay.${stem}.${tag} PROPERTIES
      ENVIRONMENT "KONFORM_FUZZ_BACKEND=${backend};KONFORM_FUZZ_REPRO_DIR=${_findings}"
      FIXTURES_REQUIRED konform_fuzz_seeds LABELS fuzz-smoke TIMEOUT 300)
  endforeach()
endforeach()

set(_fixtures ${PROJECT_SOURCE_DIR}/fixtures)
add_test(NAME fuzz.replay.tolerance_table
         COMMAND konform_fuzz_tolerance_table -min_inputs=4 ${_fixtures}/tolerances ${PROJECT_SOURCE_DIR}/reference/tolerances.tsv)
# The regression corpus joins once a finding has been committed to it.
set(_regressions "")
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/regressions)
  set(_regressions ${CMAKE_CURRENT_SOURCE_DIR}/regressions)
endif()
add_test(NAME fuzz.replay.reproducer
         COMMAND konform_fuzz_reproducer -min_inputs=5 ${_fixtures}/cases ${_fixtures}/malformed/reproducers
                 ${_regressions})
add_test(NAME fuzz.replay.report COMMAND konform_fuzz_report -min_inputs=3 ${_fixtures}/reports)
set_tests_properties(fuzz.replay.tolerance_table fuzz.replay.reproducer fuzz.replay.report
                     PROPERTIES LABELS fuzz-smoke TIMEOUT 120)

# Fixtures pass on the built-in backends; each regression passes there and still
# fails on the plugin it was found on; each malformed file gives its error.
set(_plugins_tsv "")
if(KONFORM_MUTANTS)
  set(_plugins_tsv --plugins ${CMAKE_BINARY_DIR}/mutants/plugins.tsv)
endif()
add_test(NAME fuzz.files
         COMMAND Python3::Interpreter ${CMAKE_CURRENT_SOURCE_DIR}/check_files.py $<TARGET_FILE:konform>
                 --source ${PROJECT_SOURCE_DIR} ${_plugins_tsv})
set_tests_properties(fuzz.files PROPERTIES LABELS fuzz-smoke TIMEOUT 600)
