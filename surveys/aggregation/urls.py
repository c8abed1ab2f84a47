app_name = "aggregation"

urlpatterns = []
