#include "fu_test.h"
int main(void) { return fu_test_report("plan_search"); }
