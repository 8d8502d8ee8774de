// Preloaded (NODE_OPTIONS --require) into the console's Next.js processes: they exit when the
// service that started them is gone, even when it was SIGKILLed and could not stop them itself.
const parent = Number(process.env.EXIT_WITH_PARENT_PID);
if (parent > 0) {
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      process.exit(0);
    }
  }, 1000).unref();
}
