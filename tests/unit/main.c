/* Entry point of build/tests/unit: runs every suite of suites.h in one SRunner
 * and turns any failure into a nonzero exit status for make check. */
#include <stdlib.h>

#include "suites.h"

int main(void)
{
    SRunner *sr = srunner_create(options_values_suite());
    srunner_add_suite(sr, options_precedence_suite());
    srunner_add_suite(sr, options_errors_suite());
    srunner_add_suite(sr, options_lengths_suite());
    srunner_add_suite(sr, options_argv_suite());
    srunner_add_suite(sr, options_events_help_suite());
    srunner_add_suite(sr, interval_records_suite());
    srunner_add_suite(sr, interval_reduce_suite());
    srunner_add_suite(sr, interval_op_names_suite());
    srunner_add_suite(sr, trace_open_suite());
    srunner_add_suite(sr, trace_rows_suite());
    srunner_add_suite(sr, errors_suite());
    srunner_add_suite(sr, resources_parse_suite());
    srunner_add_suite(sr, resources_load_suite());
    srunner_add_suite(sr, resources_lookup_suite());
    srunner_add_suite(sr, scheduler_thesis_suite());
    srunner_add_suite(sr, scheduler_place_suite());
    srunner_add_suite(sr, scheduler_errors_suite());
    srunner_add_suite(sr, scheduler_remove_suite());
    srunner_add_suite(sr, scheduler_random_suite());
    srunner_add_suite(sr, scheduler_init_suite());
    srunner_add_suite(sr, rms_state_parse_suite());
    srunner_add_suite(sr, rms_state_files_suite());
    srunner_add_suite(sr, rms_offer_reclaim_suite());
    srunner_add_suite(sr, rms_take_give_suite());
    srunner_add_suite(sr, rms_state_update_suite());
    srunner_add_suite(sr, rms_schedule_suite());
    srunner_add_suite(sr, emulate_suite());
    srunner_add_suite(sr, partition_even_suite());
    srunner_add_suite(sr, partition_proportional_suite());
    srunner_add_suite(sr, partition_weighted_edges_suite());
    srunner_add_suite(sr, partition_nnz_suite());
    srunner_add_suite(sr, partition_check_suite());
    srunner_add_suite(sr, partition_fill_suite());
    srunner_add_suite(sr, partition_overlap_suite());
    srunner_add_suite(sr, hockney_suite());
    srunner_add_suite(sr, calibration_suite());
    srunner_add_suite(sr, predict_comm_suite());
    srunner_add_suite(sr, predict_comp_suite());
    srunner_add_suite(sr, predict_reconfig_suite());
    srunner_add_suite(sr, predict_redist_suite());
    srunner_add_suite(sr, predict_entry_suite());
    srunner_add_suite(sr, lbalance_detect_suite());
    srunner_add_suite(sr, lbalance_moves_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
