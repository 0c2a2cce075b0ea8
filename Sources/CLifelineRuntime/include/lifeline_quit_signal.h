#ifndef LIFELINE_QUIT_SIGNAL_H
#define LIFELINE_QUIT_SIGNAL_H

/// Makes SIGQUIT write one byte ('Q') to `fd` (the write end of a non-blocking pipe) instead of
/// ending the process, or of being ignored (as a shell leaves it for a program it starts in the
/// background): a program that handles SIGQUIT itself keeps its handler. The handler only calls
/// write(2), which is async-signal-safe, and keeps errno; system calls it interrupts restart.
/// Returns 1 when it installed the handler, 0 when it left the disposition as it was.
int lifeline_quit_signal_install(int fd);

/// Gives SIGQUIT back the disposition it had (the default, or ignored), when the handler
/// installed by `lifeline_quit_signal_install` is still the one in place (the program may have
/// installed its own since, which stays).
void lifeline_quit_signal_remove(void);

/// Lets the calling thread receive SIGQUIT, which a program started with it blocked (its
/// parent's mask is inherited) would otherwise never be handed: the thread that waits for the
/// handler's byte takes it.
void lifeline_quit_signal_unblock_here(void);

#endif
