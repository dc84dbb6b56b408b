Expected WA: prints zero
++++++++[>++++++<-]>.[-]++++++++++.
