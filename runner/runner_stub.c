/* placeholder until runner/ lands */ typedef int runner_placeholder;
