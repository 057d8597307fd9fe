/* The suite constructors of the unit-test binary, one per test file (test_MODULE.c, or
 * test_MODULE_BEHAVIOUR.c where a module's tests are split by behaviour), so that main.c can
 * run them all without knowing what each holds. */
#ifndef XMPIR_TESTS_UNIT_SUITES_H
#define XMPIR_TESTS_UNIT_SUITES_H

#include <check.h>

Suite *options_values_suite(void);
Suite *options_precedence_suite(void);
Suite *options_idle_suite(void);
Suite *options_errors_suite(void);
Suite *options_lengths_suite(void);
Suite *options_argv_suite(void);
Suite *options_events_help_suite(void);
Suite *interval_records_suite(void);
Suite *interval_reduce_suite(void);
Suite *interval_op_names_suite(void);
Suite *trace_open_suite(void);
Suite *trace_rows_suite(void);
Suite *trace_table_suite(void);
Suite *cost_suite(void);
Suite *ckpt_manifest_suite(void);
Suite *crc_suite(void);
Suite *errors_suite(void);
Suite *resources_parse_suite(void);
Suite *resources_load_suite(void);
Suite *resources_lookup_suite(void);
Suite *scheduler_thesis_suite(void);
Suite *scheduler_place_suite(void);
Suite *scheduler_errors_suite(void);
Suite *scheduler_remove_suite(void);
Suite *scheduler_random_suite(void);
Suite *scheduler_init_suite(void);
Suite *rms_state_parse_suite(void);
Suite *rms_state_files_suite(void);
Suite *rms_offer_reclaim_suite(void);
Suite *rms_take_give_suite(void);
Suite *rms_state_update_suite(void);
Suite *rms_schedule_suite(void);
Suite *resize_suite(void);
Suite *slurm_parse_suite(void);
Suite *slurm_plan_suite(void);
Suite *textfile_suite(void);
Suite *emulate_suite(void);
Suite *partition_even_suite(void);
Suite *partition_proportional_suite(void);
Suite *partition_weighted_edges_suite(void);
Suite *partition_nnz_suite(void);
Suite *partition_check_suite(void);
Suite *partition_fill_suite(void);
Suite *partition_overlap_suite(void);
Suite *hockney_suite(void);
Suite *calibration_suite(void);
Suite *predict_comm_suite(void);
Suite *predict_comp_suite(void);
Suite *predict_reconfig_suite(void);
Suite *predict_redist_suite(void);
Suite *predict_entry_suite(void);
Suite *lbalance_detect_suite(void);
Suite *lbalance_moves_suite(void);
Suite *lbalance_time_suite(void);
Suite *lbalance_noise_suite(void);
Suite *config_suite(void);
Suite *malleability_suite(void);
Suite *yield_suite(void);
Suite *options_amp_suite(void);
Suite *mapping_suite(void);
Suite *amp_suite(void);

#endif
