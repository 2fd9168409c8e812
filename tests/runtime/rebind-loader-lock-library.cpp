// The library rebind-loader-lock loads: its constructor waits until the other thread has seen it
// loaded (and, before the fix, taken the rebinding mutex), then calls the hook.
#include <unistd.h>

extern "C" void cucatch_test_hook();  // the test program's

__attribute__((constructor)) static void callHookWhileLoading() {
  usleep(200000);
  cucatch_test_hook();
}
