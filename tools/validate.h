/* trace2 validate: event logs checked against docs/event-schema.md. */
#ifndef T2_VALIDATE_H
#define T2_VALIDATE_H

int cmd_validate(int argc, char **argv);

#endif
