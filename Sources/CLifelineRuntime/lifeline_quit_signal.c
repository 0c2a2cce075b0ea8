#include "lifeline_runtime.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

/// The descriptor the handler writes to; -1 when none.
static volatile sig_atomic_t quit_fd = -1;
/// The disposition the handler replaced: the default, or ignored (as a shell leaves it for a
/// program it starts in the background, and `nohup` does).
static void (*replaced)(int) = SIG_DFL;

static void lifeline_on_quit(int signal_number) {
    (void)signal_number;
    int saved = errno;
    int fd = quit_fd;
    if (fd >= 0) {
        char byte = 'Q';
        // A full pipe already holds a request that has not been seen: nothing is lost.
        ssize_t written = write(fd, &byte, 1);
        (void)written;
    }
    errno = saved;
}

int lifeline_quit_signal_install(int fd) {
    struct sigaction current;
    if (sigaction(SIGQUIT, NULL, &current) != 0) return 0;
    if ((current.sa_flags & SA_SIGINFO) || (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN)) return 0;
    replaced = current.sa_handler;
    quit_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = lifeline_on_quit;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    if (sigaction(SIGQUIT, &action, NULL) != 0) {
        quit_fd = -1;
        return 0;
    }
    return 1;
}

void lifeline_quit_signal_remove(void) {
    struct sigaction current;
    if (sigaction(SIGQUIT, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO)
        && current.sa_handler == lifeline_on_quit) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = replaced;
        sigemptyset(&action.sa_mask);
        sigaction(SIGQUIT, &action, NULL);
    }
    quit_fd = -1;
}

void lifeline_quit_signal_unblock_here(void) {
    sigset_t quit;
    sigemptyset(&quit);
    sigaddset(&quit, SIGQUIT);
    pthread_sigmask(SIG_UNBLOCK, &quit, NULL);
}
