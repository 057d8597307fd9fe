/* Entry point of build/tests/unit: runs every suite of suites.h in one SRunner
 * and turns any failure into a nonzero exit status for make check. */
#include <stdlib.h>

#include "suites.h"

/* In the order they run, a line per module. */
static Suite *(*const suites[])(void) = {
    options_values_suite, options_precedence_suite, options_idle_suite, options_errors_suite, options_lengths_suite,
    options_argv_suite, options_events_help_suite,
    interval_records_suite, interval_reduce_suite, interval_op_names_suite,
    trace_open_suite, trace_rows_suite, cost_suite, ckpt_manifest_suite, crc_suite,
    trace_table_suite,
    errors_suite,
    resources_parse_suite, resources_load_suite, resources_lookup_suite,
    scheduler_thesis_suite, scheduler_place_suite, scheduler_errors_suite, scheduler_remove_suite,
    scheduler_random_suite, scheduler_init_suite,
    rms_state_parse_suite, rms_state_files_suite, rms_offer_reclaim_suite, rms_take_give_suite,
    rms_state_update_suite, rms_schedule_suite, slurm_parse_suite, slurm_plan_suite,
    textfile_suite,
    emulate_suite,
    partition_even_suite, partition_proportional_suite, partition_weighted_edges_suite,
    partition_nnz_suite, partition_check_suite, partition_fill_suite, partition_overlap_suite,
    hockney_suite,
    calibration_suite,
    predict_comm_suite, predict_comp_suite, predict_reconfig_suite, predict_redist_suite,
    predict_entry_suite,
    lbalance_detect_suite, lbalance_moves_suite, lbalance_time_suite, lbalance_noise_suite,
    config_suite,
    malleability_suite, mapping_suite, amp_suite,
    yield_suite, options_amp_suite, resize_suite,
};

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
